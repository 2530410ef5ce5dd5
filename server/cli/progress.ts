/** A one-line progress bar on stderr for long seeds; the caller skips it when not on a terminal. */
export function progressBar(label: string) {
  const started = Date.now();
  return (done: number, total: number) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    const rate = Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
    process.stderr.write(
      `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} (${rate}/s)`,
    );
    if (done >= total) process.stderr.write('\n');
  };
}
