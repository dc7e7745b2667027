-- PostgreSQL only (a NOTIFY trigger on the event log); SQLite runs one instance and wakes its tailer in process.
-- Kept so that both providers list the same migrations.
SELECT 1;
