#version 300 es
// 5x5 bilateral blur: each neighbour weighs exp(-d² / 2 spatialSigma²) * exp(-|Δrgb|² / 2 rangeSigma²),
// d in texels and Δrgb the RGB difference to the centre (0...1 units); weights are normalised.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform vec2 texelSize;
uniform float spatialFactor;  // -1 / (2 spatialSigma²)
uniform float rangeFactor;    // -1 / (2 rangeSigma²)

void main() {
    vec4 center = texture(inputImageTexture, textureCoordinate);
    vec4 sum = vec4(0.0);
    float total = 0.0;
    for (int y = -2; y <= 2; ++y) {
        for (int x = -2; x <= 2; ++x) {
            vec4 neighbour = texture(inputImageTexture, textureCoordinate + vec2(float(x), float(y)) * texelSize);
            vec3 difference = neighbour.rgb - center.rgb;
            float weight = exp(spatialFactor * float(x * x + y * y) + rangeFactor * dot(difference, difference));
            sum += neighbour * weight;
            total += weight;
        }
    }
    fragColor = sum / total;
}
