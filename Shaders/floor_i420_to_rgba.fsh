#version 300 es
// Benchmark floor: I420 (BT.709 limited range) to RGBA with the least work for the same quality:
// luma exact (texelFetch), each chroma plane from one bilinear texture() fetch.
precision highp float;
layout(location = 0) out vec4 fragColor;
uniform sampler2D lumaPlane;
uniform sampler2D cbPlane;
uniform sampler2D crPlane;
uniform vec2 inverseSize;

void main() {
    vec2 position = gl_FragCoord.xy * inverseSize;
    float y = (texelFetch(lumaPlane, ivec2(gl_FragCoord.xy), 0).r * 255.0 - 16.0) / 219.0;
    float cb = (texture(cbPlane, position).r * 255.0 - 128.0) / 224.0;
    float cr = (texture(crPlane, position).r * 255.0 - 128.0) / 224.0;
    vec3 rgb = vec3(y + 1.5748 * cr, y - 0.187324 * cb - 0.468124 * cr, y + 1.8556 * cb);
    fragColor = vec4(clamp(rgb, 0.0, 1.0), 1.0);
}
