#version 300 es
// Benchmark floor: the Cb and Cr planes of I420 (BT.709 limited) into rows [H, 3H/2) of the
// (W/4) x (3H/2) target: each target row holds two chroma rows of W/2 samples; each sample is
// the 2x2 box average of the RGBA picture from one bilinear fetch at the block's centre.
precision highp float;
precision highp int;
layout(location = 0) out vec4 fragColor;
uniform sampler2D source;
uniform vec2 inverseSize;
uniform int pictureHeight;
uniform int eighthWidth;

float chroma(vec2 block, bool isCr) {
    vec3 c = texture(source, (block * 2.0 + 1.0) * inverseSize).rgb;
    float y = dot(c, vec3(0.2126, 0.7152, 0.0722));
    float d = isCr ? (c.r - y) / 1.5748 : (c.b - y) / 1.8556;
    return (128.0 + 224.0 * d) / 255.0;
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int row = p.y - pictureHeight;
    int quarter = pictureHeight / 4;
    bool isCr = row >= quarter;
    int chromaRow = 2 * (isCr ? row - quarter : row);
    int column = p.x * 4;
    if (p.x >= eighthWidth) { chromaRow += 1; column -= eighthWidth * 4; }
    vec2 block = vec2(float(column), float(chromaRow));
    fragColor = vec4(chroma(block, isCr), chroma(block + vec2(1.0, 0.0), isCr),
                     chroma(block + vec2(2.0, 0.0), isCr), chroma(block + vec2(3.0, 0.0), isCr));
}
