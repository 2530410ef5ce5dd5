/** A pg_lsn's text (`16/B374D848`) as a number that orders as PostgreSQL orders LSNs. */
export function lsnValue(text: string): bigint {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text.trim());
  if (!match) throw new Error(`not a pg_lsn: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}
