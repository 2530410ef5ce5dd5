/** The primary's WAL position at an instant (epoch ms). */
export interface PrimarySample {
  at: number;
  value: bigint;
}

/**
 * The primary's recent WAL positions, oldest first, kept for `horizonMs`. A replica that has replayed
 * up to a sample's position has every change the primary had at that sample's instant: its lag is at
 * most the time since then. Measured this way an idle primary means no lag (nothing to miss), and a
 * paused replay shows as growing lag as soon as the primary writes anything.
 */
export class PrimarySamples {
  readonly #samples: PrimarySample[] = [];
  readonly horizonMs: number;

  constructor(horizonMs: number) {
    this.horizonMs = horizonMs;
  }

  add(sample: PrimarySample): void {
    this.#samples.push(sample);
    const oldest = sample.at - this.horizonMs;
    // Always keep one sample: a replica is compared with the newest one it covers.
    while (this.#samples.length > 1 && (this.#samples[0] as PrimarySample).at < oldest) this.#samples.shift();
  }

  /** The newest sample at or below `position`: positions only grow, so the search runs from the end. */
  newestAtOrBelow(position: bigint): PrimarySample | undefined {
    for (let i = this.#samples.length - 1; i >= 0; i--) {
      const s = this.#samples[i] as PrimarySample;
      if (s.value <= position) return s;
    }
    return undefined;
  }
}
