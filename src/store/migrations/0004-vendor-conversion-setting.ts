import { sql, type Kysely } from 'kysely';

// Whether a vendor lets customers pay in their own currency converted from USD (1) or only in the
// currencies it priced (0). Existing vendors keep today's behaviour: conversion on.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('vendors')
    .addColumn('allow_conversion', 'integer', (c) => c.notNull().defaultTo(sql`1`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vendors').dropColumn('allow_conversion').execute();
}
