#!/usr/bin/env node
// Generates the Prisma clients when they are missing or were generated from another schema (vitest's unit
// project runs this first, so the unit tier works on a fresh checkout without `npm start` or `npm test`).
import { generateClients } from "./bootstrap.mjs";

generateClients();
