import PeerscandProgram

await runPeerscand()
