// Figures as the UI shows them, the same everywhere.

/** money is an estimated cost in dollars: four decimals below a cent. */
export function money(n: number): string {
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`
}

/** tokens is a token count, shortened ("12k tok"): a local model has no price, and $0 says nothing. */
export function tokens(n: number): string {
  return n >= 10000 ? `${Math.round(n / 1000)}k tok` : n >= 1000 ? `${(n / 1000).toFixed(1)}k tok` : `${n} tok`
}
