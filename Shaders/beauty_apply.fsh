#version 300 es
// Beauty, final pass (full resolution). Per pixel:
// - guided = a Y + b with the smoothed coefficients (bilinearly upsampled): the skin's luma with
//   its blemishes and fine wrinkles flattened, edges kept;
// - detail = colour - blur3x3 (four bilinear samples at the texel corners): the finest texture,
//   of which `textureAmount` is put back on smoothed skin so that it keeps pores and grain, and
//   which sharpens what is not skin (`sharpness`);
// - smoothing is confined to skin (the likelihood from pass 1) and eased off across strong local
//   gradients (eyelashes, lip and nostril lines) that the window statistics may have blurred;
// - whitening lifts skin with c + w c (1 - c): brighter, slightly less saturated, no clipping.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the input picture
uniform sampler2D inputImageTexture2;  // pass 4: mean a, mean b, skin likelihood
out vec4 fragColor;

uniform vec2 texelSize;
uniform float smoothing;
uniform float textureAmount;
uniform float sharpness;
uniform float whitening;
uniform vec2 edgeRange;  // gradient magnitudes (per pixel, 0...1 units) where protection starts and is full

const vec3 bt709 = vec3(0.2126, 0.7152, 0.0722);

void main() {
    vec4 color = texture(inputImageTexture, textureCoordinate);
    vec2 corner = 0.5 * texelSize;
    vec3 topLeft = texture(inputImageTexture, textureCoordinate + vec2(-corner.x, -corner.y)).rgb;
    vec3 topRight = texture(inputImageTexture, textureCoordinate + vec2(corner.x, -corner.y)).rgb;
    vec3 bottomLeft = texture(inputImageTexture, textureCoordinate + vec2(-corner.x, corner.y)).rgb;
    vec3 bottomRight = texture(inputImageTexture, textureCoordinate + vec2(corner.x, corner.y)).rgb;
    vec3 detail = color.rgb - 0.25 * (topLeft + topRight + bottomLeft + bottomRight);

    float luma = dot(color.rgb, bt709);
    vec4 corners = vec4(dot(topLeft, bt709), dot(topRight, bt709), dot(bottomLeft, bt709), dot(bottomRight, bt709));
    vec2 gradient = 0.5 * vec2(corners.y + corners.w - corners.x - corners.z, corners.z + corners.w - corners.x - corners.y);
    float edge = smoothstep(edgeRange.x, edgeRange.y, length(gradient));

    vec3 coefficients = texture(inputImageTexture2, textureCoordinate).rgb;
    float skin = coefficients.z;
    float guided = coefficients.x * luma + coefficients.y;
    float target = guided + textureAmount * dot(detail, bt709);

    vec3 result = color.rgb + smoothing * skin * (1.0 - edge) * (target - luma);
    result += sharpness * (1.0 - skin) * detail;
    result = clamp(result, 0.0, 1.0);
    result += whitening * skin * result * (1.0 - result);
    fragColor = vec4(result, color.a);
}
