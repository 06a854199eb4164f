/** One named step of a pipeline: it takes the result of the step before it and returns its own. */
export interface Stage<C, I, O> {
  readonly name: string;
  run(context: C, input: I): Promise<O>;
}

/** Stages run in order, each on the result of the one before; a list is built with `stages(first).then(next)…`. */
export class Stages<C, I, O> {
  private constructor(private readonly list: ReadonlyArray<Stage<C, unknown, unknown>>) {}

  static of<C, I, O>(first: Stage<C, I, O>): Stages<C, I, O> {
    return new Stages<C, I, O>([first as Stage<C, unknown, unknown>]);
  }

  then<N>(next: Stage<C, O, N>): Stages<C, I, N> {
    return new Stages<C, I, N>([...this.list, next as Stage<C, unknown, unknown>]);
  }

  get names(): string[] {
    return this.list.map((stage) => stage.name);
  }

  async run(context: C, input: I): Promise<O> {
    let value: unknown = input;
    for (const stage of this.list) value = await stage.run(context, value);
    return value as O;
  }
}

export const stages = Stages.of;
