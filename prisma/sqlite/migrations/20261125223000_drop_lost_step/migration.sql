-- PostgreSQL only (it drops the function of 20261124220000_lost_step, which SQLite never had). Kept so that both
-- providers list the same migrations.
SELECT 1;
