#version 300 es
// A refined person mask as a picture: white where the person is, black for the background, the
// edge anti-aliased (the same alpha the background filters composite with).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;  // the refined mask, person in .r
uniform vec2 edge;                    // the mask values where alpha starts and ends rising
out vec4 fragColor;

void main() {
    float alpha = smoothstep(edge.x, edge.y, texture(inputImageTexture, textureCoordinate).r);
    fragColor = vec4(vec3(alpha), 1.0);
}
