// Colour piece: hue. Rotates each colour about the gray axis R = G = B by `degrees` (Rodrigues'
// rotation formula); grays stay unchanged.
uniform float PIECE_degrees;

vec4 PIECE_apply(vec4 color) {
    float angle = radians(PIECE_degrees);
    vec3 axis = vec3(0.57735026918962576);  // (1, 1, 1) / sqrt(3)
    float c = cos(angle);
    float s = sin(angle);
    vec3 rotated = color.rgb * c + cross(axis, color.rgb) * s + axis * dot(axis, color.rgb) * (1.0 - c);
    return vec4(rotated, color.a);
}
