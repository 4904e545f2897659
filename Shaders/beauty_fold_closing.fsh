#version 300 es
// Beauty, fold passes (reduced resolution; only for faces with landmarks): a grey closing of the
// luma, the largest value over 2 radius + 1 texels and then the smallest over as many, done as
// four one-dimensional passes (max across, max down, min across, min down). A closing fills
// dark valleys narrower than its window (the folds beside the nose and mouth, neck creases) and
// leaves everything wider, and every step between dark and light, as it was: it can lift a fold,
// never darken skin beside eyes or lips. The last pass writes the closing in 8 bits: beauty_apply
// lifts each full-resolution pixel inside a face that lies below it up towards it, so a fold's
// dark pixels rise and the skin beside them does not.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // stage 0: the block means; later stages: the stage before
out vec4 fragColor;

uniform ivec2 direction;  // (1, 0) across or (0, 1) down
uniform int radius;       // in texels, 1...16
uniform int stage;        // 0, 1: largest; 2, 3: smallest; 3 writes 8 bits, the others 16

const vec3 bt709 = vec3(0.2126, 0.7152, 0.0722);

vec2 pack16(float value) {
    float scaled = clamp(value, 0.0, 1.0) * 255.0;
    float high = floor(scaled);
    return vec2(high / 255.0, scaled - high);
}

float unpack16(vec2 pair) {
    return (pair.x * 255.0 + pair.y) / 255.0;
}

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
    if (stage == 3) {
        fragColor = vec4(result, 0.0, 0.0, 1.0);  // sampled bilinearly: one channel, not two packed
    } else {
        fragColor = vec4(pack16(result), 0.0, 1.0);
    }
}
