-- CreateTable
CREATE TABLE "McpToolPin" (
    "id" TEXT NOT NULL,
    "serverId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "hash" TEXT NOT NULL,
    "pending" JSONB,
    "pendingHash" TEXT,
    "pendingAt" TIMESTAMP(3),
    "acceptedById" TEXT,
    "acceptedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "McpToolPin_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "McpToolPin_serverId_toolName_key" ON "McpToolPin"("serverId", "toolName");

