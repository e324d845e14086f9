// A typed `includes` for the lists of literals the contract names (event types, id types,
// targeting types...): `isOneOf(LIST, v)` narrows `v` to the list's type, with no cast.

/** `v` is one of `list`'s values. */
export function isOneOf<T>(list: readonly T[], v: unknown): v is T {
  return list.some((x) => x === v);
}
