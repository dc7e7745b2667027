-- CreateTable
CREATE TABLE "McpToolPin" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "serverId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "hash" TEXT NOT NULL,
    "pending" JSONB,
    "pendingHash" TEXT,
    "pendingAt" DATETIME,
    "acceptedById" TEXT,
    "acceptedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "McpToolPin_serverId_toolName_key" ON "McpToolPin"("serverId", "toolName");

