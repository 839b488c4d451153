import type { ContextManager } from "../../../contracts/context-manager.js";
import type { Message } from "../../../contracts/generated/message.js";

/**
 * The smallest ContextManager the coordinator tests need: stores copies, returns copies.
 * The real modules (modules/context-*) are tested by the conformance suite, not here.
 */
export class FakeContextManager implements ContextManager {
  stored: Message[] = [];

  async addMessage(message: Message): Promise<void> {
    this.stored.push(structuredClone(message));
  }
  async getMessagesForRequest(): Promise<Message[]> {
    return structuredClone(this.stored);
  }
  async getMessages(): Promise<Message[]> {
    return structuredClone(this.stored);
  }
  async setMessages(messages: Message[]): Promise<void> {
    this.stored = structuredClone(messages);
  }
  async clear(): Promise<void> {
    this.stored = [];
  }
}
