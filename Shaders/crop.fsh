#version 300 es
// Copies a rectangle of the input, whole pixels: output pixel (x, y) is input pixel
// (x, y) + `origin`, read exactly (texelFetch).
precision highp float;
precision highp int;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform ivec2 origin;  // the rectangle's first pixel in the input

void main() {
    fragColor = texelFetch(inputImageTexture, ivec2(gl_FragCoord.xy) + origin, 0);
}
