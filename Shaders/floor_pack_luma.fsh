#version 300 es
// Benchmark floor: the Y plane of I420 (BT.709 limited), four samples per RGBA8 texel, into rows
// [0, H) of one (W/4) x (3H/2) target whose bytes are exactly an I420 frame.
precision highp float;
layout(location = 0) out vec4 fragColor;
uniform sampler2D source;

float luma(int x, int y) {
    vec3 c = texelFetch(source, ivec2(x, y), 0).rgb;
    return (16.0 + 219.0 * dot(c, vec3(0.2126, 0.7152, 0.0722))) / 255.0;
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int x = p.x * 4;
    fragColor = vec4(luma(x, p.y), luma(x + 1, p.y), luma(x + 2, p.y), luma(x + 3, p.y));
}
