export * from './pause-rules.ts';
export * from './pauses.ts';
