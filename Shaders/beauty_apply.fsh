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
//   with faces, so the plain one pays nothing for them) shape it further, in each face's own units (eye
//   distances across, eye-to-mouth distances down): in the lower face and the neck the luma's
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
uniform sampler2D inputImageTexture4;  // the closing of the luma (beauty_fold_closing)
uniform sampler2D inputImageTexture5;  // the block means (pass 1): a smooth colour for the hue of shadowed skin
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

#define MAXIMUM_FACES 4
uniform int faceCount;
uniform vec4 faceAxes[MAXIMUM_FACES];      // the eyes' middle xy (pixels), the unit vector from the left eye to the right
uniform vec4 faceScales[MAXIMUM_FACES];    // eye distance, eye-to-mouth distance (pixels), unused, unused
uniform vec4 faceFeatures[MAXIMUM_FACES];  // the mouth's middle across, its half width, the nose across, down (face units)
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

#ifdef FACES
// How far a colour inside a face's lower half or neck is skin, lit or in shadow, by its hue
// alone: shadows under the chin and in deep folds are darker and redder than the skin the model
// learnt, but keep a skin hue (red above yellow, neither gray nor blue); the suit, the collar,
// gray hair and the background beside the neck do not.
float shadowedSkin(vec3 rgb) {
    float luma = dot(rgb, vec3(0.299, 0.587, 0.114));
    vec2 chroma = vec2(dot(rgb, vec3(-0.168736, -0.331264, 0.5)), dot(rgb, vec3(0.5, -0.418688, -0.081312))) / max(luma, 0.02);
    return smoothstep(0.02, 0.05, luma) * smoothstep(0.08, 0.15, chroma.y) * (1.0 - smoothstep(0.8, 1.0, chroma.y))
        * smoothstep(0.0, 0.05, -chroma.x) * (1.0 - smoothstep(0.45, 0.6, -chroma.x));
}

// 1 inside the ellipse with these radii, 0 outside, falling smoothly over the outer `feather`.
float ellipse(vec2 point, vec2 centre, vec2 radii, float feather) {
    return 1.0 - smoothstep(1.0 - feather, 1.0, length((point - centre) / radii));
}

// x: how far this pixel is in a face's lower half or neck (where folds are); y: how far it is in
// an eye with its brow, the lips or the nostrils (kept as they are).
vec2 faceZones(vec2 pixel) {
    vec2 zones = vec2(0.0);
    for (int k = 0; k < MAXIMUM_FACES; k++) {
        if (k >= faceCount) break;
        vec2 offset = pixel - faceAxes[k].xy;
        vec2 across = faceAxes[k].zw;
        vec2 point = vec2(dot(offset, across) / faceScales[k].x, dot(offset, vec2(-across.y, across.x)) / faceScales[k].y);
        vec4 features = faceFeatures[k];
        float lower = ellipse(point, vec2(0.0, 1.0), vec2(1.0, 0.8), 0.3) * smoothstep(features.w - 0.15, features.w + 0.1, point.y);
        float neck = ellipse(point, vec2(0.0, 2.0), vec2(0.7, 0.75), 0.5);
        float eyes = max(ellipse(point, vec2(-0.5, -0.1), vec2(0.3, 0.26), 0.35), ellipse(point, vec2(0.5, -0.1), vec2(0.3, 0.26), 0.35));
        float lips = ellipse(point, vec2(features.x, 1.0), vec2(features.y + 0.12, 0.22), 0.4);
        float nostrils = ellipse(point, vec2(features.z, features.w + 0.1), vec2(0.26, 0.14), 0.4);
        zones = max(zones, vec2(max(lower, neck), max(eyes, max(lips, nostrils))));
    }
    return zones;
}
#endif

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
    vec2 zones = faceZones(gl_FragCoord.xy);
    float face = zones.x * (1.0 - zones.y);
    float skin = coefficients.z * lumaLimits(guided + dot(color.rgb, vec3(0.299, 0.587, 0.114)) - luma, face);
    skin = max(skin, face * shadowedSkin(texture(inputImageTexture5, textureCoordinate).rgb));
    float smoothed = skin * (1.0 - zones.y);
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
    target += folds * face * clamp(texture(inputImageTexture4, textureCoordinate).r - guided, 0.0, maximumFill);
#endif

    vec3 result = color.rgb + smoothing * smoothed * (1.0 - edge) * (target - luma);
    result += sharpness * (1.0 - smoothed) * (1.0 - face) * detail;
    float meanLuma = coefficients.w;
    result += whitening * skin * meanLuma * (1.0 - meanLuma);
    fragColor = vec4(clamp(result, 0.0, 1.0), color.a);
}
