import PeerscanWebProgram

await runPeerscanWeb()
