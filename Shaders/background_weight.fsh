#version 300 es
// The first step of a background blur that never smears the person into the background: the
// frame shrunk (four bilinear taps a quarter of an output texel from the centre), each tap
// weighted by how much it is background. rgb holds the weighted colour, a the weight; blurring
// both and dividing gives the background's colour alone, even right beside the person.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the frame
uniform sampler2D inputImageTexture2;  // the refined mask, person in .r
uniform vec2 outputTexel;              // 1 / the output size
uniform vec2 edge;                     // the mask values where the person's alpha starts and ends rising
out vec4 fragColor;

vec4 weighted(vec2 at) {
    float background = 1.0 - smoothstep(edge.x, edge.y, texture(inputImageTexture2, at).r);
    return vec4(texture(inputImageTexture, at).rgb * background, background);
}

void main() {
    vec2 step = outputTexel * 0.25;
    fragColor = 0.25 * (weighted(textureCoordinate + vec2(-step.x, -step.y)) + weighted(textureCoordinate + vec2(step.x, -step.y))
                      + weighted(textureCoordinate + vec2(-step.x, step.y)) + weighted(textureCoordinate + vec2(step.x, step.y)));
}
