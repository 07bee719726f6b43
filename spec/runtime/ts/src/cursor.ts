// The field path a reader or writer is at.

import type { Segment } from "./errors.js";

/**
 * The field path a reader or writer is at, kept as a stack so that an error names the field it
 * happened in: a record enters a level and names each field before it reads or writes it; a
 * list puts each element's index on the stack.
 */
export class Cursor {
  /** The path, outermost first; "" stands for a record whose first field has not begun. */
  readonly path: Segment[];

  constructor(path: Segment[] = []) {
    this.path = path;
  }

  /** Starts a record: its fields are one level deeper. */
  enter(): void {
    this.path.push("");
  }

  /** Ends a record. */
  leave(): void {
    this.path.pop();
  }

  /** Names the field about to be read or written, and returns this cursor to do it. */
  field(name: string): this {
    if (this.path.length === 0) {
      this.path.push(name);
    } else {
      this.path[this.path.length - 1] = name;
    }
    return this;
  }
}
