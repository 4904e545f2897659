#version 300 es
// Beauty, final pass (full resolution). Per pixel:
// - guided = a Y + b with the smoothed coefficients (bilinearly upsampled): the skin's luma with
//   its pores, blemishes and wrinkles flattened, edges kept;
// - detail = colour - blur3x3 (four bilinear samples at the texel corners): the finest texture,
//   of which `textureAmount` is put back on smoothed skin, and which sharpens what is not skin
//   (`sharpness`);
// - smoothing is confined to skin (the likelihood from the skin model, with its luma limits
//   applied again per pixel) and eased off across the
//   strongest local gradients (eyelashes, lip and nostril lines);
// - whitening lifts skin by w m (1 - m), m the local mean luma: the same lift for a pixel and its
//   neighbours, so that it brightens without sharpening the texture back;
// - `showMask` 1 writes the skin likelihood as gray instead (what the filter treats as skin).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the input picture
uniform sampler2D inputImageTexture2;  // pass 4: mean a, mean b, skin likelihood, mean luma
uniform sampler2D inputImageTexture3;  // the skin model: its luma limits are applied per pixel
out vec4 fragColor;

uniform vec2 texelSize;
uniform float smoothing;
uniform float textureAmount;
uniform float sharpness;
uniform float whitening;
uniform vec2 edgeRange;  // gradient magnitudes (per pixel, 0...1 units) where protection starts and is full
uniform float showMask;

const vec3 bt709 = vec3(0.2126, 0.7152, 0.0722);

float unpack16(vec2 pair) {
    return (pair.x * 255.0 + pair.y) / 255.0;
}

// The skin model's luma limits, at full resolution (the likelihood from the reduced image is
// blurred over a few pixels): hair, pupils, lashes and brows below, glare above. `luma` is the
// guided filter's output (BT.601 weights): smooth on skin, so that noise does not make the mask
// flicker, and as sharp as the input on strong structure.
float lumaLimits(float luma) {
    vec4 model = texelFetch(inputImageTexture3, ivec2(1, 0), 0);
    float meanLuma = unpack16(model.rg);
    float lumaDeviation = 0.5 * unpack16(model.ba);
    // Margins relative to the skin's luma: darker skin has darker hair and lips, closer in luma.
    // Above, lit foreheads and cheekbones are skin too: the wider margin leaves eye whites and
    // teeth to the chroma.
    float low = meanLuma - 2.0 * lumaDeviation - 0.07 * meanLuma;
    float high = meanLuma + 2.5 * lumaDeviation + 0.12 * meanLuma;
    return smoothstep(low - 0.07 * meanLuma, low, luma) * (1.0 - smoothstep(high, high + 0.1 * meanLuma, luma));
}

void main() {
    vec4 color = texture(inputImageTexture, textureCoordinate);
    vec4 coefficients = texture(inputImageTexture2, textureCoordinate);
    vec2 corner = 0.5 * texelSize;
    vec3 topLeft = texture(inputImageTexture, textureCoordinate + vec2(-corner.x, -corner.y)).rgb;
    vec3 topRight = texture(inputImageTexture, textureCoordinate + vec2(corner.x, -corner.y)).rgb;
    vec3 bottomLeft = texture(inputImageTexture, textureCoordinate + vec2(-corner.x, corner.y)).rgb;
    vec3 bottomRight = texture(inputImageTexture, textureCoordinate + vec2(corner.x, corner.y)).rgb;
    vec3 blur = 0.25 * (topLeft + topRight + bottomLeft + bottomRight);
    vec3 detail = color.rgb - blur;
    float luma = dot(color.rgb, bt709);
    float guided = coefficients.x * luma + coefficients.y;
    float skin = coefficients.z * lumaLimits(guided + dot(color.rgb, vec3(0.299, 0.587, 0.114)) - luma);
    if (showMask > 0.5) {
        fragColor = vec4(vec3(skin), 1.0);
        return;
    }

    vec4 corners = vec4(dot(topLeft, bt709), dot(topRight, bt709), dot(bottomLeft, bt709), dot(bottomRight, bt709));
    vec2 gradient = 0.5 * vec2(corners.y + corners.w - corners.x - corners.z, corners.z + corners.w - corners.x - corners.y);
    float edge = smoothstep(edgeRange.x, edgeRange.y, length(gradient));

    float target = guided + textureAmount * dot(detail, bt709);

    vec3 result = color.rgb + smoothing * skin * (1.0 - edge) * (target - luma);
    result += sharpness * (1.0 - skin) * detail;
    float meanLuma = coefficients.w;
    result += whitening * skin * meanLuma * (1.0 - meanLuma);
    fragColor = vec4(clamp(result, 0.0, 1.0), color.a);
}
