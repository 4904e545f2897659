#version 300 es
// Benchmark floor (Benchmarks/ELImageBench/FloorPipeline.swift): one triangle covering the
// viewport, no vertex buffers; fragment shaders address pixels with gl_FragCoord.
void main() {
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
