// Types of png.js for the TypeScript tests that use it.
export function png(w: number, h: number, bytes?: number): Buffer;
