#version 300 es
// Beauty, pass 2 (reduced resolution): horizontal 5-texel means of the luma Y and of Y², each
// stored with 16-bit precision in two 8-bit channels (hi, lo): the variance E[Y²] - E[Y]² that
// pass 3 takes is far smaller than one 8-bit step. Texels are read exactly (texelFetch): bilinear
// filtering would mix Y before squaring.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

vec2 pack16(float value) {
    float scaled = clamp(value, 0.0, 1.0) * 255.0;
    float high = floor(scaled);
    return vec2(high / 255.0, scaled - high);
}

void main() {
    ivec2 size = textureSize(inputImageTexture, 0);
    ivec2 position = ivec2(gl_FragCoord.xy);
    float sum = 0.0;
    float sumOfSquares = 0.0;
    for (int offset = -2; offset <= 2; ++offset) {
        ivec2 texel = ivec2(clamp(position.x + offset, 0, size.x - 1), position.y);
        float luma = dot(texelFetch(inputImageTexture, texel, 0).rgb, vec3(0.2126, 0.7152, 0.0722));
        sum += luma;
        sumOfSquares += luma * luma;
    }
    fragColor = vec4(pack16(sum / 5.0), pack16(sumOfSquares / 5.0));
}
