#version 300 es
// The full-viewport triangle of fullscreen.vsh for a window: a window's row 0 is its bottom, so
// the texture's first row (textureCoordinate.y = 0) is placed at the top.
out vec2 textureCoordinate;

void main() {
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    textureCoordinate = vec2(corner.x, 1.0 - corner.y);
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
