export { default } from '../eslint.support.mjs';
