import PeerscanctlProgram

await runPeerscanctl()
