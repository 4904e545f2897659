// Colour piece: 3D lookup table in GPUImage's 512x512 layout: 8x8 tiles of 64x64; tile
// (blue / 8, blue % 8) holds red along x and green along y. Trilinear: bilinear inside the two
// nearest blue tiles, then mixed. `intensity` (0...1) mixes with the original colour.
uniform sampler2D PIECE_table;
uniform float PIECE_intensity;

vec4 PIECE_apply(vec4 color) {
    float blue = clamp(color.b, 0.0, 1.0) * 63.0;
    float lowBlue = floor(blue);
    float highBlue = min(lowBlue + 1.0, 63.0);
    vec2 lowTile = vec2(mod(lowBlue, 8.0), floor(lowBlue / 8.0));
    vec2 highTile = vec2(mod(highBlue, 8.0), floor(highBlue / 8.0));
    // Texel centres of entries 0 and 63 inside a tile: 0.5 / 512 and 63.5 / 512 from its corner.
    vec2 inTile = (0.5 + clamp(color.rg, 0.0, 1.0) * 63.0) / 512.0;
    vec4 low = texture(PIECE_table, lowTile * 0.125 + inTile);
    vec4 high = texture(PIECE_table, highTile * 0.125 + inTile);
    vec3 looked = mix(low.rgb, high.rgb, blue - lowBlue);
    return vec4(mix(color.rgb, looked, PIECE_intensity), color.a);
}
