export * from './processor-events.ts';
