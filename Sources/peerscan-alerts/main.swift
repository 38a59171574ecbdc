import PeerscanAlertsProgram

await runPeerscanAlerts()
