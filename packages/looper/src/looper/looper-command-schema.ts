import { z } from 'zod';
import { looperCommandSchemaOf } from './looper-command-schema-of';

/**
 * The Looper's commands (seed 000 §2), as JSON. Plain text that is not JSON
 * is a `start` with that text as the task.
 */
export const looperCommandSchema = looperCommandSchemaOf(z);
