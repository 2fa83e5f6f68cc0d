// A plugin's manifest (`.claude-plugin/plugin.json`, `.plugin/plugin.json`
// or `plugin.json`) as a form: name, version, description, author (an
// object `{name, email}` as Claude writes it, or a plain string as some
// manifests do) and homepage. Keys the form does not show are kept.
import { type JsonObject, objectAt, setAt, str } from './json-entry';

export interface ManifestForm {
  name: string;
  version: string;
  description: string;
  authorName: string;
  authorEmail: string;
  homepage: string;
}

/** The form of the manifest in `text`. */
export function manifestForm(text: string): ManifestForm {
  const m = objectAt(text, []);
  const author = m.author;
  const a: JsonObject = author != null && typeof author === 'object' && !Array.isArray(author) ? author : {};
  return {
    name: str(m, 'name'),
    version: str(m, 'version'),
    description: str(m, 'description'),
    authorName: typeof author === 'string' ? author : str(a, 'name'),
    authorEmail: str(a, 'email'),
    homepage: str(m, 'homepage'),
  };
}

/** `text` with the form's fields written (an empty field is removed). */
export function saveManifest(text: string, form: ManifestForm): string {
  let out = text;
  const put = (key: string, v: string) => {
    out = setAt(out, [key], v.trim() ? v : undefined);
  };
  put('name', form.name);
  put('version', form.version);
  put('description', form.description);
  put('homepage', form.homepage);
  const prior = objectAt(out, ['author']);
  const author: JsonObject = { ...prior, name: form.authorName };
  if (form.authorEmail) author.email = form.authorEmail;
  else delete author.email;
  out = setAt(out, ['author'], form.authorName || form.authorEmail ? author : undefined);
  return out;
}

/** The form's problems (none: it may be saved). */
export function manifestProblems(form: ManifestForm): string[] {
  const out: string[] = [];
  if (!form.name) out.push('Name: required');
  else if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(form.name))
    out.push('Name: lowercase letters, digits and single hyphens (kebab-case)');
  if (form.version && !/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/.test(form.version))
    out.push('Version: a semantic version such as 1.2.0');
  if (form.homepage && !/^https?:\/\/\S+$/.test(form.homepage)) out.push('Homepage: an http:// or https:// address');
  if (form.authorEmail && !/^[^@\s]+@[^@\s]+$/.test(form.authorEmail)) out.push('Author email: not an address');
  return out;
}
