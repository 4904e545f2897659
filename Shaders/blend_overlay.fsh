#version 300 es
// Overlay (W3C compositing): 2 base top where base <= 0.5, else 1 - 2 (1 - base)(1 - top).
// The top layer (input 2) goes over the base (input 1) with its alpha times `opacity`:
// rgb = mix(base, B(base, top), top.a * opacity); alpha = source-over coverage.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // base
uniform sampler2D inputImageTexture2;  // top, stretched to the base's size
out vec4 fragColor;

uniform float opacity;

vec3 blendColor(vec3 base, vec3 top) {
    vec3 low = 2.0 * base * top;
    vec3 high = 1.0 - 2.0 * (1.0 - base) * (1.0 - top);
    return mix(low, high, step(vec3(0.5), base));  // both sides agree at 0.5
}

void main() {
    vec4 base = texture(inputImageTexture, textureCoordinate);
    vec4 top = texture(inputImageTexture2, textureCoordinate);
    float coverage = top.a * opacity;
    vec3 blended = blendColor(clamp(base.rgb, 0.0, 1.0), clamp(top.rgb, 0.0, 1.0));
    fragColor = vec4(mix(base.rgb, blended, coverage), coverage + base.a * (1.0 - coverage));
}
