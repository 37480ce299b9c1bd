/** A Looper's answer to a command, as the CLI prints and forwards it. */
export interface LooperReplySummary {
  /** False when the command was refused or invalid. */
  ok: boolean;
  command: string;
  text: string;
  state: 'IDLE' | 'RUNNING';
}
