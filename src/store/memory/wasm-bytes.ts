/**
 * What the hand-written WebAssembly kernels (./dot-kernel.ts, ./int8-kernel.ts) are assembled from: opcodes,
 * LEB128 numbers, sections, the module around their functions, and the part of the WebAssembly API they use.
 */

export const LOCAL_GET = 0x20;
export const LOCAL_SET = 0x21;
export const LOCAL_TEE = 0x22;
export const I32_CONST = 0x41;
export const I32_LOAD = 0x28;
export const I32_ADD = 0x6a;
export const I32_MUL = 0x6c;
export const I32_SHL = 0x74;
export const I32_LT_U = 0x49;
export const I32_GE_U = 0x4f;
export const BLOCK = 0x02;
export const LOOP = 0x03;
export const BR = 0x0c;
export const BR_IF = 0x0d;
export const END = 0x0b;
export const VOID = 0x40;
export const I32 = 0x7f;
export const V128 = 0x7b;
export const SIMD = 0xfd;
export const V128_LOAD = [SIMD, 0x00];
export const V128_CONST_ZERO = [SIMD, 0x0c, ...new Array<number>(16).fill(0)];

export function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128, as i32.const takes. */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

export function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

export function vec(items: number[][]): number[] {
  return [...leb(items.length), ...items.flat()];
}

export function name(text: string): number[] {
  return [...leb(text.length), ...Buffer.from(text, 'latin1')];
}

export const get = (local: number) => [LOCAL_GET, local];
export const set = (local: number) => [LOCAL_SET, local];
export const i32 = (value: number) => [I32_CONST, ...sleb(value)];

/** base + 4 · index, both locals: the address of the index-th i32 or f32 of the array at base. */
export const wordAddress = (base: number, index: number) => [...get(base), ...get(index), ...i32(2), I32_SHL, I32_ADD];

/** for (counter = 0; counter < limit; counter += step) body: a block around a loop that leaves it at the limit. */
export const countedLoop = (counter: number, limit: number, step: number, body: number[]) => [
  ...i32(0),
  ...set(counter),
  BLOCK,
  VOID,
  LOOP,
  VOID,
  ...get(counter),
  ...get(limit),
  I32_GE_U,
  BR_IF,
  1,
  ...body,
  ...get(counter),
  ...i32(step),
  I32_ADD,
  ...set(counter),
  BR,
  0,
  END,
  END,
];

/** The part of the WebAssembly API used here (TypeScript's Node typings do not declare it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  validate(bytes: Uint8Array): boolean;
}
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A function of a kernel: its export name, its number of i32 parameters (it returns nothing) and its body. */
export interface KernelFunction {
  name: string;
  params: number;
  body: number[];
}

/** A module that imports its memory as `env.memory` and exports the functions, each with a type of its own. */
export function kernelModule(functions: KernelFunction[]): Uint8Array {
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec(functions.map((f) => [0x60, ...vec(new Array<number[]>(f.params).fill([I32])), 0x00]))),
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec(functions.map((_, index) => leb(index)))),
    ...section(7, vec(functions.map((f, index) => [...name(f.name), 0x00, ...leb(index)]))),
    ...section(10, vec(functions.map((f) => [...leb(f.body.length), ...f.body]))),
  ]);
}

/** Instances of a module over a memory each; the module is compiled at the first. */
export function kernelInstances(bytes: Uint8Array): (memory: WasmMemory) => Record<string, unknown> {
  let compiled: object | null = null;
  return (memory) => {
    compiled ??= new wasm.Module(bytes);
    return new wasm.Instance(compiled, { env: { memory } }).exports;
  };
}
