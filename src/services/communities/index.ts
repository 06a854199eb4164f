export { createCommunityService, MEMBER_LIMIT } from './service';
export type { CommunityDetail, CommunityService, CommunityState, CommunityStatus } from './service';
