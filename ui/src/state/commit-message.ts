// The agent's reply to "Ask the agent to write it", made a commit message.

/** `text` without a code fence around all of it (agents often reply so). */
export function unfence(text: string): string {
  const t = text.trim();
  const fenced = /^```[^\n]*\n([\s\S]*?)\n```$/.exec(t);
  return (fenced ? fenced[1] : t).trim();
}
