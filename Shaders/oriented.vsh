#version 300 es
// The full-frame triangle, with the texture coordinate turned by `textureTransform` (rotation
// and mirroring map each output coordinate to the input coordinate it shows).
uniform mat3 textureTransform;
out vec2 textureCoordinate;

void main() {
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    textureCoordinate = (textureTransform * vec3(corner, 1.0)).xy;
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
