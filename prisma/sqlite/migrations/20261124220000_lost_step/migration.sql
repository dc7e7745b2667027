-- PostgreSQL only (a function a lost step of an outcome fails its statement with); on SQLite an outcome's statements
-- run one at a time and a rolled-back insert gives its number back. Kept so that both providers list the same
-- migrations.
SELECT 1;
