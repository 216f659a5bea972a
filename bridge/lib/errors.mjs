// An error the Python adapter maps onto a named exception (`kind`).
export class BridgeError extends Error {
  constructor(kind, message, extra = {}) {
    super(message)
    this.kind = kind
    Object.assign(this, extra)
  }
}
