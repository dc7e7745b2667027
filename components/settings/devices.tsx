"use client";
// The user's signed-in browsers (GET /api/me/sessions): sign one out, or every one but this.
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { describeUserAgent, type DeviceView } from "@/lib/auth/device-views";
import { useDevices, useSignOutDevice, useSignOutOthers } from "./use-devices";

const button = "rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700";

function DeviceRow({ device }: { device: DeviceView }) {
  const signOut = useSignOutDevice();
  const router = useRouter();
  const client = useQueryClient();
  const name = describeUserAgent(device.userAgent);
  return (
    <li
      data-testid="device-row"
      className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-100 py-2 dark:border-slate-800"
    >
      <div className="min-w-0">
        <span className="font-medium" title={device.userAgent ?? undefined}>
          {name}
        </span>
        {device.current ? (
          <span className="ml-2 rounded bg-emerald-100 px-1.5 py-0.5 text-xs font-medium text-emerald-900 dark:bg-emerald-900 dark:text-emerald-50">
            This device
          </span>
        ) : null}
        <div className="text-xs text-slate-600 dark:text-slate-400">
          signed in {new Date(device.createdAt).toLocaleString()} · last active{" "}
          {new Date(device.lastSeenAt).toLocaleString()}
          {device.ip ? ` · ${device.ip}` : ""}
        </div>
      </div>
      <div>
        <button
          type="button"
          disabled={signOut.isPending}
          aria-label={
            device.current
              ? "Sign out this device"
              : `Sign out ${name}, signed in ${new Date(device.createdAt).toLocaleString()}`
          }
          onClick={() =>
            signOut.mutate(device.id, {
              // Signing this device out is signing out: to the sign-in page, nothing of the session kept in this tab.
              onSuccess: (result) => {
                if (!result.current) return;
                client.clear();
                router.replace("/login");
              },
            })
          }
          className={button}
        >
          Sign out
        </button>
        {signOut.error ? (
          <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
            {signOut.error.message}
          </p>
        ) : null}
      </div>
    </li>
  );
}

function SignOutOthers({ others }: { others: number }) {
  const signOutOthers = useSignOutOthers();
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="space-y-2">
      {confirming ? (
        <span className="inline-flex flex-wrap gap-2">
          <button
            type="button"
            disabled={signOutOthers.isPending}
            onClick={() => signOutOthers.mutate(undefined, { onSettled: () => setConfirming(false) })}
            className="rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white"
          >
            Yes, sign out {others} other device{others === 1 ? "" : "s"}
          </button>
          <button type="button" onClick={() => setConfirming(false)} className={button}>
            Cancel
          </button>
        </span>
      ) : (
        <button
          type="button"
          disabled={others === 0}
          onClick={() => setConfirming(true)}
          className="rounded-md border border-red-300 px-3 py-1.5 text-sm font-medium text-red-800 disabled:opacity-60 dark:border-red-800 dark:text-red-300"
        >
          Sign out everywhere else…
        </button>
      )}
      {signOutOthers.data !== undefined ? (
        <p role="status" className="text-sm">
          Signed out {signOutOthers.data} other device{signOutOthers.data === 1 ? "" : "s"}.
        </p>
      ) : null}
      {signOutOthers.error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {signOutOthers.error.message}
        </p>
      ) : null}
    </div>
  );
}

export function Devices() {
  const devices = useDevices();
  return (
    <section aria-labelledby="devices" className="space-y-3">
      <h2 id="devices" className="text-base font-semibold">
        Signed-in devices
      </h2>
      {devices.isPending ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">Loading devices…</p>
      ) : devices.error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          Could not load the devices: {devices.error.message}
        </p>
      ) : (
        <>
          <ul>
            {devices.data.map((device) => (
              <DeviceRow key={device.id} device={device} />
            ))}
          </ul>
          <SignOutOthers others={devices.data.filter((d) => !d.current).length} />
        </>
      )}
    </section>
  );
}
