/** Packs the app with a stand-in Electron (a copy of this Node) into `outDir`; returns the unpacked app's folder. */
export function packWithStandIn(outDir: string): Promise<string>;
