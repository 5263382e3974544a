import { z } from 'zod';

// Tags (Orkes' TagObject): key/value labels on definitions, event handlers and secrets.

export const TagSchema = z.object({
  key: z.string().min(1, 'tag key cannot be empty').max(255, 'tag key must be at most 255 characters'),
  value: z.string().max(1024, 'tag value must be at most 1024 characters').default(''),
  /** Orkes sends METADATA (deprecated in the SDK); kept when given. */
  type: z.string().max(64).optional(),
});
export type Tag = z.infer<typeof TagSchema>;

export const TagListSchema = z.array(TagSchema).max(100, 'at most 100 tags');

const same = (a: Tag, b: Tag): boolean => a.key === b.key && a.value === b.value;

/** `existing` plus each tag of `added` not already there (a tag is its key and value). */
export function addTags(existing: readonly Tag[] | undefined, added: readonly Tag[]): Tag[] {
  const out = [...(existing ?? [])];
  for (const t of added) if (!out.some((o) => same(o, t))) out.push(t);
  return out;
}

/** `existing` without the tags of `removed`. */
export function removeTags(existing: readonly Tag[] | undefined, removed: readonly Tag[]): Tag[] {
  return (existing ?? []).filter((o) => !removed.some((t) => same(o, t)));
}
