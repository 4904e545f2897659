#version 300 es
// Beauty, fold passes (reduced resolution; only for faces with landmarks): a grey closing of the
// luma, the largest value over 2 radius + 1 texels and then the smallest over as many, done as
// four one-dimensional passes (max across, max down, min across, min down). A closing fills
// dark valleys narrower than its window (the folds beside the nose and mouth, neck creases) and
// leaves everything wider, and every step between dark and light, as it was: it can lift a fold,
// never darken skin beside eyes or lips. The last pass (compiled with ZONES defined) writes the
// closing in 8 bits, which beauty_apply lifts each full-resolution pixel inside a face that lies
// below it up towards (so a fold's dark pixels rise and the skin beside them does not), and with
// it the faces' zones in each face's own units (eye distances across, eye-to-mouth distances
// down): how far the texel is in a lower face or neck, how far in an eye with its brow, the lips
// or the nostrils, and how far its colour is of a skin hue. They are smooth, so the reduced size
// serves the full one, bilinearly, at a ninth of the work or less.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // stage 0: the block means; later stages: the stage before
out vec4 fragColor;

uniform ivec2 direction;  // (1, 0) across or (0, 1) down
uniform int radius;       // in texels, 1...16
uniform int stage;        // 0, 1: largest; 2, 3: smallest (3: the ZONES variant)

#ifdef ZONES
uniform sampler2D inputImageTexture2;  // the block means (the colour for the skin hue)
#define MAXIMUM_FACES 4
uniform vec2 frameSize;                    // the full frame's size in pixels
uniform int faceCount;
uniform vec4 faceAxes[MAXIMUM_FACES];      // the eyes' middle xy (pixels), the unit vector from the left eye to the right
uniform vec4 faceScales[MAXIMUM_FACES];    // eye distance, eye-to-mouth distance (pixels), unused, unused
uniform vec4 faceFeatures[MAXIMUM_FACES];  // the mouth's middle across, its half width, the nose across, down (face units)
#endif

const vec3 bt709 = vec3(0.2126, 0.7152, 0.0722);

vec2 pack16(float value) {
    float scaled = clamp(value, 0.0, 1.0) * 255.0;
    float high = floor(scaled);
    return vec2(high / 255.0, scaled - high);
}

float unpack16(vec2 pair) {
    return (pair.x * 255.0 + pair.y) / 255.0;
}

#ifdef ZONES
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
        if (abs(point.x) > 1.05 || point.y < -0.4 || point.y > 2.8) continue;  // beyond every zone
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

float lumaAt(ivec2 texel) {
    vec4 value = texelFetch(inputImageTexture, texel, 0);
    return stage == 0 ? dot(value.rgb, bt709) : unpack16(value.rg);
}

void main() {
    ivec2 size = textureSize(inputImageTexture, 0);
    ivec2 position = ivec2(gl_FragCoord.xy);
    bool largest = stage < 2;
    float result = lumaAt(position);
    for (int offset = 1; offset <= 16; ++offset) {
        if (offset > radius) break;
        float before = lumaAt(clamp(position - offset * direction, ivec2(0), size - 1));
        float after = lumaAt(clamp(position + offset * direction, ivec2(0), size - 1));
        result = largest ? max(result, max(before, after)) : min(result, min(before, after));
    }
#ifdef ZONES
    // Sampled bilinearly: one channel each, not two packed.
    vec2 zones = faceZones(textureCoordinate * frameSize);
    fragColor = vec4(result, zones, shadowedSkin(texelFetch(inputImageTexture2, position, 0).rgb));
#else
    fragColor = vec4(pack16(result), 0.0, 1.0);
#endif
}
