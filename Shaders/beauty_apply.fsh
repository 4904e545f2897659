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
// - faces with landmarks (compiled with FACES defined: Beauty runs that variant only for frames
//   with faces, so the plain one pays nothing for them) shape it further, with the zones that
//   beauty_fold_closing's last pass works out at the reduced size: in the lower face and the neck the luma's
//   lower limit is relaxed (folds and the shadow under the chin are shadowed skin), strong
//   gradients are smoothed too, and what lies below the closing of the luma (beauty_fold_closing)
//   is lifted towards it, so deep folds fill; the zones' edges are feathered, the neck's widely, so that no
//   boundary shows; eyes with brows, lips and nostrils are neither smoothed nor filled (they are
//   sharpened as what is not skin), though whitened with their surroundings;
// - `showMask` 1 writes what is smoothed as gray instead (the skin likelihood with the faces'
//   zones).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the input picture
uniform sampler2D inputImageTexture2;  // pass 4: mean a, mean b, skin likelihood, mean luma
uniform sampler2D inputImageTexture3;  // the skin model: its luma limits are applied per pixel
#ifdef FACES
uniform sampler2D inputImageTexture4;  // beauty_fold_closing's last pass: the closing, the faces' zones, skin hue
#endif
out vec4 fragColor;

uniform vec2 texelSize;
uniform float smoothing;
uniform float textureAmount;
uniform float sharpness;
uniform float whitening;
uniform vec2 edgeRange;  // gradient magnitudes (per pixel, 0...1 units) where protection starts and is full
uniform float showMask;
#ifdef FACES
uniform float folds;     // how much of the fold depth is filled inside faces
const float maximumFill = 0.1;  // deeper valleys (the shadow under the chin) are lifted this much at most
#endif

const vec3 bt709 = vec3(0.2126, 0.7152, 0.0722);

float unpack16(vec2 pair) {
    return (pair.x * 255.0 + pair.y) / 255.0;
}

// The skin model's luma limits, at full resolution (the likelihood from the reduced image is
// blurred over a few pixels): hair, pupils, lashes and brows below, glare above. `luma` is the
// guided filter's output (BT.601 weights): smooth on skin, so that noise does not make the mask
// flicker, and as sharp as the input on strong structure.
// With FACES, `relaxed` 1 (inside a face's lower half) moves the lower limit down to 20 % of the
// skin's luma.
float lumaLimits(float luma, float relaxed) {
    vec4 model = texelFetch(inputImageTexture3, ivec2(1, 0), 0);
    float meanLuma = unpack16(model.rg);
    float lumaDeviation = 0.5 * unpack16(model.ba);
    // Margins relative to the skin's luma: darker skin has darker hair and lips, closer in luma.
    // Above, lit foreheads and cheekbones are skin too: the wider margin leaves eye whites and
    // teeth to the chroma.
    float low = meanLuma - 2.0 * lumaDeviation - 0.07 * meanLuma;
#ifdef FACES
    low = mix(low, 0.2 * meanLuma, relaxed);
#endif
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
#ifdef FACES
    vec4 faces = texture(inputImageTexture4, textureCoordinate);  // closing, lower face and neck, features, skin hue
    float face = faces.g * (1.0 - faces.b);
    float skin = coefficients.z * lumaLimits(guided + dot(color.rgb, vec3(0.299, 0.587, 0.114)) - luma, face);
    skin = max(skin, face * faces.a);
    float smoothed = skin * (1.0 - faces.b);
#else
    const float face = 0.0;
    float skin = coefficients.z * lumaLimits(guided + dot(color.rgb, vec3(0.299, 0.587, 0.114)) - luma, face);
    float smoothed = skin;
#endif
    if (showMask > 0.5) {
        fragColor = vec4(vec3(smoothed), 1.0);
        return;
    }

    vec4 corners = vec4(dot(topLeft, bt709), dot(topRight, bt709), dot(bottomLeft, bt709), dot(bottomRight, bt709));
    vec2 gradient = 0.5 * vec2(corners.y + corners.w - corners.x - corners.z, corners.z + corners.w - corners.x - corners.y);
    float edge = smoothstep(edgeRange.x, edgeRange.y, length(gradient)) * (1.0 - face);

    float target = guided + textureAmount * dot(detail, bt709);
    // Folds: what lies below the closing (the level of the skin around a narrow dark valley) rises
    // towards it, by at most maximumFill.
#ifdef FACES
    target += folds * face * clamp(faces.r - guided, 0.0, maximumFill);
#endif

    vec3 result = color.rgb + smoothing * smoothed * (1.0 - edge) * (target - luma);
    result += sharpness * (1.0 - smoothed) * (1.0 - face) * detail;
    float meanLuma = coefficients.w;
    result += whitening * skin * meanLuma * (1.0 - meanLuma);
    fragColor = vec4(clamp(result, 0.0, 1.0), color.a);
}
