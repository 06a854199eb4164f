export { createChatService, type ChatEvent, type ChatInput, type ChatReply, type ChatService } from './chat';
export { createConversationService, type ConversationService, type PageRequest } from './conversations';
export { presentConversation, presentMessage, type ConversationView, type MessageView } from './present';
export { createFolderService, type FolderService, type FolderView } from './folders';
