#version 300 es
// One triangle that covers the whole viewport, made from gl_VertexID: no vertex buffers.
// textureCoordinate (0,0) is the first row and column of the input texture.
out vec2 textureCoordinate;

void main() {
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    textureCoordinate = corner;
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
