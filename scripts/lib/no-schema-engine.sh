#!/bin/sh
# Stands in for Prisma 7's native schema engine, which `prisma generate` checks for but never runs (scripts/db.mjs).
# Migrations go through Prisma 6.19's WebAssembly engine instead; anything that does call this is a mistake.
echo "toolgate: Prisma 7's native schema engine is not installed; migrate with 'node scripts/db.mjs migrate'" >&2
exit 1
