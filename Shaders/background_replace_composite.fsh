#version 300 es
// The person over a new background. The background picture is fitted to the frame (filling it,
// centred, cropped). Where the mask is partial (the edge, hair), the frame holds some of the old
// background: the person's own colour is taken as (frame − (1 − m)·old background) / m, m the
// refined mask and the old background estimated beside the person, and laid over the new one, so
// no fringe of the old scene stays.
// And at the edge some of the blurred new background is laid over the person ("light wrap"), so
// the edge takes on the new scene's light.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the frame
uniform sampler2D inputImageTexture2;  // the refined mask, person in .r
uniform sampler2D inputImageTexture3;  // the new background
uniform sampler2D inputImageTexture4;  // the new background blurred (the same fit), a: the blurred person alpha
uniform sampler2D inputImageTexture5;  // the old background blurred: rgb weighted colour, a weight
uniform vec4 fit;                      // background coordinate = fit.xy + textureCoordinate * fit.zw
uniform vec2 edge;
uniform float wrap;                    // 0...1: how much of the new scene's light reaches the edge
out vec4 fragColor;

void main() {
    vec4 frame = texture(inputImageTexture, textureCoordinate);
    float mask = texture(inputImageTexture2, textureCoordinate).r;
    float person = smoothstep(edge.x, edge.y, mask);
    vec3 background = texture(inputImageTexture3, fit.xy + textureCoordinate * fit.zw).rgb;
    vec4 oldBlurred = texture(inputImageTexture5, textureCoordinate);
    vec3 oldBackground = oldBlurred.a > 0.004 ? oldBlurred.rgb / oldBlurred.a : frame.rgb;
    oldBackground = mix(frame.rgb, oldBackground, smoothstep(0.004, 0.02, oldBlurred.a));
    // The person's own colour (where it shows at all, the mask is above edge.x: no larger than 1/edge.x times an error).
    vec3 subject = clamp((frame.rgb - (1.0 - mask) * oldBackground) / max(mask, edge.x), 0.0, 1.0);
    vec4 blurred = texture(inputImageTexture4, textureCoordinate);
    // Inside the person near the edge: 1 where the blurred alpha is half, none from 0.9 on.
    float rim = person * smoothstep(0.1, 0.5, 1.0 - blurred.a);
    subject = mix(subject, blurred.rgb, wrap * rim);
    fragColor = vec4(mix(background, subject, person), frame.a);
}
