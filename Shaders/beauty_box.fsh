#version 300 es
// Beauty, pass 4 (reduced resolution): the 5x5 mean of the coefficients (a, b), of the skin
// likelihood and of the mean luma, from nine bilinear samples at 0 and +-1.5 texels (each off-centre sample is the
// exact mean of two or four texels), as the guided filter averages the coefficients of every
// window covering a pixel.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform vec2 texelSize;

void main() {
    vec2 step_ = 1.5 * texelSize;
    vec4 sum = vec4(0.0);
    for (int y = -1; y <= 1; ++y) {
        for (int x = -1; x <= 1; ++x) {
            float weight = (x == 0 ? 1.0 : 2.0) * (y == 0 ? 1.0 : 2.0);
            sum += weight * texture(inputImageTexture, textureCoordinate + vec2(float(x), float(y)) * step_);
        }
    }
    fragColor = sum / 25.0;
}
