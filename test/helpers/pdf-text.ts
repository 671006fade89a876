import PDFParser from 'pdf2json';

/** The text of a PDF as a PDF reader extracts it (pdf2json, a port of PDF.js), whitespace collapsed. */
export function pdfText(pdf: Buffer): Promise<string> {
  const parser = new PDFParser(null, true);
  return new Promise((resolve, reject) => {
    parser.on('pdfParser_dataError', (err: any) => reject(err?.parserError ?? err));
    parser.on('pdfParser_dataReady', () => resolve(parser.getRawTextContent().replace(/\s+/g, ' ')));
    // pdf2json reads the Buffer's whole underlying ArrayBuffer, and small Buffers share a pooled
    // one at an offset: hand it a copy that owns its memory from byte 0.
    const own = new Uint8Array(pdf.length);
    own.set(pdf);
    parser.parseBuffer(Buffer.from(own.buffer));
  });
}
