import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';

export default defineConfig(troupeTsup(import.meta.dirname));
