#version 300 es
// The input of the light wrap's blur, at a reduced size: the new background as fitted to the
// frame in rgb and the person's alpha in a (four taps a quarter of an output texel from the centre).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the new background
uniform sampler2D inputImageTexture2;  // the refined mask, person in .r
uniform vec4 fit;                      // background coordinate = fit.xy + textureCoordinate * fit.zw
uniform vec2 outputTexel;
uniform vec2 edge;
out vec4 fragColor;

vec4 tap(vec2 at) {
    return vec4(texture(inputImageTexture, fit.xy + at * fit.zw).rgb, smoothstep(edge.x, edge.y, texture(inputImageTexture2, at).r));
}

void main() {
    vec2 step = outputTexel * 0.25;
    fragColor = 0.25 * (tap(textureCoordinate + vec2(-step.x, -step.y)) + tap(textureCoordinate + vec2(step.x, -step.y))
                      + tap(textureCoordinate + vec2(-step.x, step.y)) + tap(textureCoordinate + vec2(step.x, step.y)));
}
