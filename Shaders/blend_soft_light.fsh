#version 300 es
// Soft light (W3C compositing): base - (1 - 2 top) base (1 - base) where top <= 0.5, else
// base + (2 top - 1)(D(base) - base) with D(b) = ((16 b - 12) b + 4) b for b <= 0.25, sqrt(b) above.
// The top layer (input 2) goes over the base (input 1) with its alpha times `opacity`:
// rgb = mix(base, B(base, top), top.a * opacity); alpha = source-over coverage.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // base
uniform sampler2D inputImageTexture2;  // top, stretched to the base's size
out vec4 fragColor;

uniform float opacity;

vec3 blendColor(vec3 base, vec3 top) {
    vec3 d = mix(((16.0 * base - 12.0) * base + 4.0) * base, sqrt(base), step(vec3(0.25), base));
    vec3 darker = base - (1.0 - 2.0 * top) * base * (1.0 - base);
    vec3 lighter = base + (2.0 * top - 1.0) * (d - base);
    return mix(darker, lighter, step(vec3(0.5), top));  // both sides agree at 0.5
}

void main() {
    vec4 base = texture(inputImageTexture, textureCoordinate);
    vec4 top = texture(inputImageTexture2, textureCoordinate);
    float coverage = top.a * opacity;
    vec3 blended = blendColor(clamp(base.rgb, 0.0, 1.0), clamp(top.rgb, 0.0, 1.0));
    fragColor = vec4(mix(base.rgb, blended, coverage), coverage + base.a * (1.0 - coverage));
}
